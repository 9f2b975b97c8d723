/**
 * Listings: ListObjects and ListObjectVersions over the erasure sets (entry type: {@link
 * dev.appliance.core.listing.ObjectListing}), built on sorted, lazy walks of the drives' namespaces ({@code
 * DriveWalker}, and {@code MergedKeyWalk}, which the scanner, the drive healer and the bucket registry use too).
 */
package dev.appliance.core.listing;
