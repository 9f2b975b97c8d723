// The bucket page's versions-per-key card: how many keys have 1, 2–10, 11–100, ... versions (delete markers count as
// versions) and the key with the most, as the background scanner last counted them (GET .../usage, versionCounts).
// A table, so that screen readers read each class with its count; the bars only repeat the counts visually.
import {h, count, time} from '../dom.js';

function classLabel(c) {
  if (c.maxVersions === null) return 'More than ' + count(c.minVersions - 1);
  if (c.minVersions === c.maxVersions) return count(c.minVersions);
  return count(c.minVersions) + '–' + count(c.maxVersions);
}

function distribution(v) {
  if (!v) {
    return h('p', {id: 'version-counts', class: 'muted'},
      'Not counted yet: the background scanner counts versions per key on its next cycle.');
  }
  const widest = Math.max(1, ...v.classes.map(c => c.keys));
  return h('div', {id: 'version-counts'},
    h('table', {id: 'version-counts-table'},
      h('caption', {}, count(v.keys) + ' keys, as of ' + time(v.asOf)),
      h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, 'Versions'), h('th', {scope: 'col', class: 'num'}, 'Keys'),
        h('th', {scope: 'col'}, 'Share'))),
      h('tbody', {}, v.classes.map(c => h('tr', {'data-versions': c.minVersions + '-' + (c.maxVersions ?? '')},
        h('th', {scope: 'row'}, classLabel(c)),
        h('td', {class: 'num', 'data-key': 'keys'}, count(c.keys)),
        h('td', {'aria-hidden': 'true'}, h('span', {class: 'count-bar',
          style: 'width:' + Math.round(100 * c.keys / widest) + '%'})))))),
    h('p', {id: 'most-versions'}, v.mostVersions
      ? ['Most versions: ', h('code', {}, v.mostVersions.key), ' with ' + count(v.mostVersions.versions) + '.']
      : 'No keys.'));
}

/** The card; {@code usage} is the bucket's usage answer (GET .../usage or the bucket's own). */
export function versionCountsCard(usage) {
  return h('section', {class: 'card', 'aria-labelledby': 'version-counts-title'},
    h('h2', {id: 'version-counts-title'}, 'Versions per key'),
    distribution(usage && usage.versionCounts));
}
