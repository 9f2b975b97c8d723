/** The appliance process: parses the command line, opens the drives, and runs the S3 endpoint and the console. */
package dev.appliance.app;
