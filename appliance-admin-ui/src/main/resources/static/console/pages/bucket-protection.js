// The bucket page's versioning and Object Lock default retention forms (PUT .../versioning, PUT .../object-lock).
import {put} from '../api.js';
import {h} from '../dom.js';
import {control, input, select, sectionForm, wholeNumber, sentence} from './bucket-form.js';

/** Versioning: Enabled or Suspended. An Object Lock bucket's versioning stays Enabled; the refusal says why. */
export function versioningForm(path, bucket, onChange) {
  const locked = bucket.objectLock && bucket.objectLock.enabled;
  const never = bucket.versioning === 'Unversioned';
  const status = select('versioning-status',
    [...(never ? [['', 'Unversioned: choose Enabled or Suspended']] : []), ['Enabled', 'Enabled'], ['Suspended', 'Suspended']],
    never ? '' : bucket.versioning);
  const hint = locked
    ? 'This bucket has Object Lock: its versioning stays Enabled for good, the appliance refuses Suspended.'
    : 'Suspended keeps the versions already made but stores new writes as the one "null" version. '
      + (never ? 'Once turned on, a bucket cannot go back to unversioned.' : '');
  return sectionForm('versioning-form', [control(status, 'Versioning', {hint, field: 'status'})], {
    async onSave() {
      if (status.value === '') throw {field: 'status', message: 'Choose Enabled or Suspended.'};
      const answer = await put(path + '/versioning', {status: status.value});
      onChange({versioning: answer.status});
      return 'Versioning is ' + answer.status + '.';
    },
    explain(e) {
      if (e.code === 'InvalidBucketState') {
        e.field = 'status';
        e.message = 'Refused: versioning cannot be suspended on an Object Lock bucket, so that every write keeps '
          + 'its own protected version. The appliance says: ' + sentence(e.message);
      }
      return e;
    },
  });
}

/**
 * Object Lock's default retention: none, or a mode with a number of days or years. A bucket without Object Lock gets
 * the form that turns it on (for good, once ticked; versioning must be Enabled), then reload shows the page again.
 */
export function retentionForm(path, bucket, onChange, reload) {
  if (!(bucket.objectLock && bucket.objectLock.enabled)) return lockOnForm(path, bucket, onChange, reload);
  const r = bucket.objectLock.defaultRetention;
  const mode = select('retention-mode', [['', 'None: objects are locked only when a client asks'],
    ['GOVERNANCE', 'GOVERNANCE: a permitted user may bypass it'], ['COMPLIANCE', 'COMPLIANCE: nobody can shorten it']],
  r ? r.mode : '');
  const period = input('retention-period', r ? (r.days || r.years) : '', {inputmode: 'numeric'});
  const unit = select('retention-unit', [['days', 'days'], ['years', 'years']], r && r.years ? 'years' : 'days');
  const syncDisabled = () => {
    period.disabled = unit.disabled = mode.value === '';
  };
  mode.addEventListener('change', syncDisabled);
  syncDisabled();
  const form = sectionForm('retention-form', [
    control(mode, 'Default retention mode', {field: 'defaultRetention.mode',
      hint: 'Applied to each new object version that does not ask for its own retention. Veeam sets its own: '
        + 'leave none for a Veeam bucket.'}),
    control(period, 'Retention period', {field: 'defaultRetention.period', hint: '1 to 36500 days, or 1 to 100 years.'}),
    control(unit, 'Unit'),
  ], {
    async onSave() {
      let body = {};
      if (mode.value) {
        const years = unit.value === 'years';
        const n = wholeNumber(period, 'a number of ' + unit.value, 1, years ? 100 : 36500);
        if (n === null) throw {field: 'defaultRetention.period', message: 'Expected a number of ' + unit.value + '.'};
        body = {defaultRetention: {mode: mode.value, [years ? 'years' : 'days']: n}};
      }
      const answer = await put(path + '/object-lock', body);
      onChange({objectLock: answer});
      const d = answer.defaultRetention;
      return d ? 'Default retention: ' + d.mode + ' ' + (d.days ? d.days + ' days' : d.years + ' years') + '.'
        : 'No default retention.';
    },
    explain(e) {
      // the API names days or years; both are the one period input here
      if (e.field === 'defaultRetention.days' || e.field === 'defaultRetention.years' || e.field === 'defaultRetention') {
        e.field = 'defaultRetention.period';
      }
      return e;
    },
  });
  return form;
}

function lockOnForm(path, bucket, onChange, reload) {
  const confirm = h('input', {type: 'checkbox', id: 'lock-confirm', name: 'lock-confirm', 'data-field': 'enabled',
    'aria-describedby': 'lock-confirm-hint lock-confirm-error'});
  return sectionForm('lock-on-form', [
    h('p', {id: 'retention-off', class: 'muted'}, 'Object Lock is off for this bucket, so it has no default retention.'),
    h('div', {class: 'field'},
      h('label', {class: 'check'}, confirm, 'Turn on Object Lock for good'),
      h('p', {class: 'hint', id: 'lock-confirm-hint'}, 'Versions can then be locked against deletion (retention, legal '
        + 'hold), and versioning stays Enabled. Object Lock can never be turned off. Versioning must be Enabled first.'),
      h('p', {class: 'field-error', id: 'lock-confirm-error', role: 'alert'})),
  ], {
    submitLabel: 'Turn on Object Lock',
    async onSave() {
      if (!confirm.checked) throw {field: 'enabled', message: 'Tick the box first: Object Lock cannot be turned off.'};
      onChange({objectLock: await put(path + '/object-lock', {})});
      reload();
      return null;
    },
    explain(e) {
      if (e.code === 'InvalidBucketState') {
        e.field = 'enabled';
        e.message = 'Refused: Object Lock needs versioning Enabled; save versioning as Enabled first. The appliance '
          + 'says: ' + sentence(e.message);
      }
      return e;
    },
  });
}
