// System checks (hardware and OS health) come with the installer; until the appliance has them this page says so
// rather than show a result it did not measure.
import {h, show} from '../dom.js';

export const title = 'System checks';

export async function render() {
  show(
    h('h1', {}, 'System checks'),
    h('p', {class: 'message', id: 'checks-unavailable'},
      'Not available yet: this appliance does not run hardware and OS health checks (disks\' SMART state, memory, '
      + 'file systems, time sync) yet. They come with the installer. Until then, the Drives page shows each drive\'s '
      + 'state and errors, and the Dashboard the retention clock and the host\'s NTP state.'),
    h('p', {}, h('a', {href: '#/drives'}, 'Drives'), ' · ', h('a', {href: '#/dashboard'}, 'Dashboard')));
}
