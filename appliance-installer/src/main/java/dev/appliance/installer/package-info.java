/**
 * The installer's command line ({@code appliance-installer check | tune | prepare-drives}) and how it prints the preflight report.
 */
package dev.appliance.installer;
