/**
 * The AWS IAM query API (users, access keys, groups, policies) served on the S3 address for requests signed for the
 * service {@code iam}, so that {@code aws iam ... --endpoint-url}, boto3 and Terraform manage the appliance's users.
 */
package dev.appliance.s3.api.iam;
