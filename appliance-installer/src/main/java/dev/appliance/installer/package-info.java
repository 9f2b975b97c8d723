/**
 * The installer's command line ({@code appliance-installer check | tune | prepare-drives | compare}) and how it
 * prints the preflight report and reads the nodes' reports back for {@code compare}.
 */
package dev.appliance.installer;
