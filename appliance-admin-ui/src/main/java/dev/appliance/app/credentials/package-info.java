/** Root credentials: from the environment, or generated once and kept encrypted at rest. */
package dev.appliance.app.credentials;
