/** The command line: subcommands, flags, and drive lists with the ellipsis syntax. */
package dev.appliance.app.cli;
