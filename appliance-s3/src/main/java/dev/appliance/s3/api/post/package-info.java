/** POST Object: browser-based uploads, a multipart/form-data body authenticated by a signed POST policy. */
package dev.appliance.s3.api.post;
