/**
 * The HTTP/1.1 transport: Netty server, per-connection request state machine, streamed request bodies with
 * back-pressure, streamed response bodies that wait for the client.
 */
package dev.appliance.s3.http;
