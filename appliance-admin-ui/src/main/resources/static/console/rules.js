// The bucket naming rules, shown beside the name input and marked as the name breaks them. The appliance checks them
// again (BucketNames); this copy only helps while typing, the server's answer is what counts.
export const BUCKET_RULES = [
  ['3 to 63 characters', n => n.length >= 3 && n.length <= 63],
  ['lower-case letters, digits, dots and hyphens only', n => /^[a-z0-9.-]*$/.test(n)],
  ['starts and ends with a letter or digit', n => /^[a-z0-9](.*[a-z0-9])?$/.test(n)],
  ['no two adjacent dots, no dot next to a hyphen', n => !/\.\.|\.-|-\./.test(n)],
  ['not an IP address (like 192.168.1.1)', n => !/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(n)],
  ['not starting with xn--, sthree- or amzn-s3-demo-', n => !/^(xn--|sthree-|amzn-s3-demo-)/.test(n)],
  ['not ending with -s3alias, --ol-s3, .mrap or --x-s3', n => !/(-s3alias|--ol-s3|\.mrap|--x-s3)$/.test(n)],
  ['not "appliance" (reserved for the health probes)', n => n !== 'appliance'],
];

/** Updates the rule list items (in BUCKET_RULES order) for name; true when it keeps every rule. */
export function markRules(list, name) {
  let ok = true;
  [...list.children].forEach((item, i) => {
    const kept = name === '' || BUCKET_RULES[i][1](name);
    item.classList.toggle('broken', !kept);
    ok = ok && kept;
  });
  return ok && name !== '';
}

/** IAM user names: 1 to 64 of letters, digits and +=,.@_- (the identity store's rule). */
export const USER_NAME = /^[A-Za-z0-9+=,.@_-]{1,64}$/;

/** S3's wording for a taken name speaks of "your previous request"; the console says what it means. */
export function explainBucketError(error, name) {
  if (error.code === 'BucketAlreadyExists') error.message = 'A bucket named "' + name + '" already exists.';
  return error;
}
