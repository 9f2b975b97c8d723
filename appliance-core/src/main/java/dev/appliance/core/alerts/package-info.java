/**
 * Operator alerts kept on the drives: version explosion (keys with too many versions, identical content re-uploaded,
 * keys near the hard cap) detected from the PUT path and the background scanner's counts. See docs/alerts.md.
 */
package dev.appliance.core.alerts;
