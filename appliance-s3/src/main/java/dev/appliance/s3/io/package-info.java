/** Small stream building blocks shared by the body decoders and the HTTP layer. */
package dev.appliance.s3.io;
