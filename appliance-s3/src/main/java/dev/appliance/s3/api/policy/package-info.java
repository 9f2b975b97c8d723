/**
 * A bucket's access settings: its policy (Put/Get/DeleteBucketPolicy, GetBucketPolicyStatus), its public access block
 * (Put/Get/DeletePublicAccessBlock) and its object ownership (Get/PutBucketOwnershipControls, always
 * BucketOwnerEnforced).
 */
package dev.appliance.s3.api.policy;
