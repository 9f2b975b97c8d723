/**
 * Identity state (users, access keys, groups, customer managed policies) kept on every drive as one versioned document,
 * written to a majority and resolved by quorum and generation, with access-key secrets encrypted at rest. Entry type:
 * {@link dev.appliance.core.identity.IdentityStore}.
 */
package dev.appliance.core.identity;
