/** The admin console's web process (Spring Boot): status and health now, the web console later. */
package dev.appliance.app.console;
