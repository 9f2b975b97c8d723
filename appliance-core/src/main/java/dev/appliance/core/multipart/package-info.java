/**
 * Multipart uploads on one erasure set ({@link dev.appliance.core.multipart.MultipartUploads}): the upload record held
 * by quorum, parts written as erasure-coded shards, completion into an object version, abort, listing, and the
 * reconcile that removes uploads a crash left on too few drives.
 */
package dev.appliance.core.multipart;
