/**
 * MD5 of the bodies of concurrent writes hashed side by side, one per vector lane, with the JDK's MD5 as the reference
 * and the way for a body hashed alone.
 */
package dev.appliance.core.md5;
