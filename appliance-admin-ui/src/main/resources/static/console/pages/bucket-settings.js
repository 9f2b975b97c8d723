// The bucket page's appliance settings (quota, SOSAPI, version alert threshold: PUT .../settings, which replaces all
// three), its usage with a Refresh (GET .../usage), and Delete bucket with a typed confirmation.
import {get, put, del} from '../api.js';
import {h, bytes, count, time} from '../dom.js';
import {control, input, select, sectionForm, wholeNumber, fieldFromMessage, sentence} from './bucket-form.js';

const GIB = 1024 ** 3;

export function settingsForm(path, settings, onChange) {
  const quota = input('quota-gib', settings.quotaBytes === null ? '' : +(settings.quotaBytes / GIB).toFixed(3),
    {inputmode: 'decimal'});
  const sosapi = select('sosapi', [['', 'Default (on for Object Lock buckets)'], ['true', 'On'], ['false', 'Off']],
    settings.sosapi === null ? '' : String(settings.sosapi));
  const threshold = input('alert-threshold', settings.versionAlertThreshold, {inputmode: 'numeric'});
  return sectionForm('settings-form', [
    control(quota, 'Quota in GiB', {field: 'quotaBytes', hint: 'Writes past it are refused (QuotaExceeded). Empty: no quota.'}),
    control(sosapi, 'Veeam SOSAPI', {field: 'sosapi',
      hint: 'Whether the bucket answers Veeam\'s Smart Object Storage API (capacity shown in Veeam).'}),
    control(threshold, 'Version alert threshold', {field: 'versionAlertThreshold',
      hint: 'Versions of one key before a version-explosion alert. Empty: the default ('
        + settings.versionAlertThresholdInEffect + ' in effect now).'}),
  ], {
    async onSave() {
      let quotaBytes = null;
      const quotaText = quota.value.trim();
      if (quotaText) {
        const gib = Number(quotaText);
        if (!(gib > 0)) throw {field: 'quotaBytes', message: 'Expected a positive number of GiB, or nothing for no quota.'};
        quotaBytes = Math.round(gib * GIB);
      }
      const body = {
        quotaBytes,
        sosapi: sosapi.value === '' ? null : sosapi.value === 'true',
        versionAlertThreshold: wholeNumber(threshold, 'a number of versions'),
      };
      const answer = await put(path + '/settings', body);
      onChange({quotaBytes: answer.quotaBytes, sosapi: answer.sosapi});
      return 'Saved: quota ' + (answer.quotaBytes === null ? 'none' : bytes(answer.quotaBytes)) + ', SOSAPI '
        + (answer.sosapi === null ? 'default' : answer.sosapi ? 'on' : 'off') + ', alert at '
        + count(answer.versionAlertThresholdInEffect) + ' versions.';
    },
    explain: fieldFromMessage,
  });
}

function usageFigures(u) {
  if (!u) return h('p', {id: 'bucket-usage', class: 'muted'}, 'Not counted yet.');
  return h('dl', {id: 'bucket-usage'}, [
    ['Objects', count(u.objects)],
    ['Versions', count(u.versions)],
    ['Delete markers', count(u.deleteMarkers)],
    ['Size', bytes(u.bytes)],
    ['Counted at', time(u.countedAt)],
  ].flatMap(([label, value]) => [h('dt', {}, label), h('dd', {'data-key': label.toLowerCase().replace(/ /g, '-')}, value)]));
}

/** Usage as last counted; Refresh asks again (a read after writes starts a recount within seconds). */
export function usageCard(path, usage) {
  let figures = usageFigures(usage);
  const message = h('p', {class: 'message', role: 'alert', id: 'usage-message'});
  const refresh = h('button', {type: 'button', class: 'secondary', id: 'usage-refresh'}, 'Refresh');
  refresh.addEventListener('click', async () => {
    refresh.disabled = true;
    message.textContent = '';
    message.className = 'message';
    try {
      const fresh = usageFigures(await get(path + '/usage'));
      figures.replaceWith(fresh);
      figures = fresh;
    } catch (e) {
      if (e.status !== 401) {
        message.className = 'message error';
        message.textContent = e.message;
      }
    } finally {
      refresh.disabled = false;
    }
  });
  return h('section', {class: 'card', 'aria-labelledby': 'usage-title'},
    h('h2', {id: 'usage-title'}, 'Usage'), figures, message, h('div', {class: 'actions'}, refresh));
}

/** Delete bucket: enabled once the name is typed; a refusal (the bucket still holds versions) is explained. */
export function deleteForm(path, name) {
  const confirm = input('delete-confirm', '', {autocomplete: 'off'});
  const form = sectionForm('delete-form', [
    control(confirm, 'Type the bucket name to delete it', {field: 'bucket',
      hint: 'Only an empty bucket can be deleted: every version and delete marker must be gone first.'}),
  ], {
    submitLabel: 'Delete bucket',
    editNeeds: 'admin:DeleteBucket',
    async onSave() {
      if (confirm.value !== name) {
        throw {field: 'bucket', message: 'Type "' + name + '" exactly to delete this bucket.'};
      }
      await del(path);
      location.hash = '#/buckets';
      return null;
    },
    explain(e) {
      if (e.code === 'BucketHasLockedVersions') {
        e.message = 'Refused: the bucket holds versions under Object Lock, which cannot be deleted while their '
          + 'retention lasts or a legal hold is on. ' + sentence(e.message);
      } else if (e.code === 'BucketNotEmpty') {
        e.message = 'Refused: the bucket is not empty. ' + sentence(e.message);
      }
      e.field = 'bucket';
      return e;
    },
  });
  const button = form.querySelector('#delete-form-save');
  button.classList.add('danger');
  const sync = () => {
    button.disabled = confirm.value !== name;
  };
  confirm.addEventListener('input', sync);
  sync();
  return form;
}
