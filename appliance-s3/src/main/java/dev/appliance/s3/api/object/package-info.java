/** Object operations: PutObject, GetObject (with ranges and conditions), HeadObject, DeleteObject. */
package dev.appliance.s3.api.object;
