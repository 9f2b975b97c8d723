// The bucket page's policy editor: a textarea checked with JSON.parse before anything is sent (the error names its
// line), then PUT .../policy, whose MalformedPolicy and PublicPolicyBlocked refusals are explained; Remove deletes it.
import {put, del} from '../api.js';
import {h} from '../dom.js';
import {control, sectionForm} from './bucket-form.js';

/** Where JSON.parse stopped, from V8's message (its line and column, or its position); null when it says neither. */
export function jsonErrorAt(text, error) {
  const lineCol = /line (\d+) column (\d+)/.exec(error.message);
  if (lineCol) return {line: Number(lineCol[1]), column: Number(lineCol[2])};
  const at = /position (\d+)/.exec(error.message);
  const ended = /end of JSON input/.test(error.message);
  if (!at && !ended) return null;
  const position = at ? Number(at[1]) : text.length;
  const before = text.slice(0, position).split('\n');
  return {line: before.length, column: before[before.length - 1].length + 1};
}

function pretty(document) {
  try {
    return JSON.stringify(JSON.parse(document), null, 2);
  } catch (e) {
    return document; // kept as given: show it as it is
  }
}

export function policyForm(path, bucketName, policy) {
  const text = h('textarea', {id: 'policy-document', name: 'policy-document', rows: 14, spellcheck: 'false', class: 'code'});
  text.value = policy.document === null ? '' : pretty(policy.document);
  const state = h('p', {id: 'policy-state', class: 'muted'});
  const describe = p => {
    state.textContent = p.document === null
      ? 'No bucket policy: access is what the users\' policies allow.'
      : p.isPublic ? 'The policy in force grants public access.' : 'The policy in force grants no public access.';
  };
  describe(policy);
  const example = JSON.stringify({Version: '2012-10-17', Statement: [{Sid: 'NoBucketDelete', Effect: 'Deny',
    Principal: '*', Action: 's3:DeleteBucket', Resource: 'arn:aws:s3:::' + bucketName}]});
  const form = sectionForm('policy-form', [
    state,
    control(text, 'Bucket policy (JSON)', {field: 'document',
      hint: 'An S3 bucket policy; empty the box and save to remove it. For example: ' + example}),
  ], {
    submitLabel: 'Save policy',
    async onSave() {
      const document = text.value.trim();
      if (document === '') {
        await del(path + '/policy');
        describe({document: null});
        return 'Bucket policy removed.';
      }
      try {
        JSON.parse(document);
      } catch (e) {
        const at = jsonErrorAt(document, e);
        const where = at ? ' at line ' + at.line + ', column ' + at.column : '';
        throw {field: 'document', message: 'Not valid JSON' + where + ': ' + e.message + '. Nothing was sent.'};
      }
      const answer = await put(path + '/policy', {document});
      describe(answer);
      return 'Bucket policy saved.';
    },
    explain(e) {
      if (e.code === 'MalformedPolicy') {
        e.message = 'The appliance refused the policy (MalformedPolicy): ' + e.message.replace(/^document: /, '');
      } else if (e.code === 'PublicPolicyBlocked') {
        e.message = 'Refused (PublicPolicyBlocked): this policy would grant public access (a "*" principal without '
          + 'a restricting condition), and the bucket\'s public access block forbids that. '
          + e.message.replace(/^document: /, '');
      }
      return e;
    },
  });
  return form;
}
