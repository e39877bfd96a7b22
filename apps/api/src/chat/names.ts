import { remove as removeConfusables } from 'confusables';

/**
 * A name's confusable skeleton: two names that look alike (Latin "a" and Cyrillic "а", 𝔭𝒶ỿ and
 * pay, case, accents, spacing, dots and dashes) have the same one. Only for comparisons.
 */
export function nameSkeleton(name: string): string {
  const folded = removeConfusables(name.normalize('NFKC')).normalize('NFKD');
  return folded
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\s._\-'’`·]+/g, '')
    .replace(/0/g, 'o')
    .replace(/[1l|]/g, 'i')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w');
}
