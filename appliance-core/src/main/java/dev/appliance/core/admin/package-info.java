/** The engine's operator-facing interface: what the admin API, console and CLI see and tune, in non-erasure types. */
package dev.appliance.core.admin;
