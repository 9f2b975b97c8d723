/** Sorted, lazy walks of drive namespaces that listings merge across drives. */
package dev.appliance.core.listing;
