import { describe, expect, it } from 'vitest';
import { seedDigest } from './catalogue-files.server';
import { seedState, servedWords } from './repository-rules';

// When a deploy's markdown changed a product editors saved (decision 018): the saves record the seed they descend
// from, and the product is "changed in the repository" only when the repository's text moved from that seed and is not
// the saved text itself.

const A = '---\nname: Oil\nprice: 35\n---\n';
const B = '---\nname: Oil\nprice: 32\n---\n';
const SAVED = '---\nname: Oil\nprice: 29.99\n---\n';

describe('seedState', () => {
  const saved = (seed: string | null, text = SAVED, revision = 7) => ({ text, revision, seed });

  it.each([
    ['no save: the seed is the product', { text: A, revision: 0, seed: seedDigest(A) }, B, 'seed'],
    ['saves over this very seed', saved(seedDigest(A)), A, 'agrees'],
    ['the repository moved under the saves', saved(seedDigest(A)), B, 'changed'],
    ['the repository holds the saved text (an export committed)', saved(seedDigest(A)), SAVED, 'agrees'],
    ['a new product, now in the repository as saved', saved('none'), SAVED, 'agrees'],
    ['a new product the repository then changed', saved('none'), B, 'changed'],
    ['saves made before seeds were recorded take this one', saved(null), B, 'adopt'],
    ['a product the repository does not have', saved(seedDigest(A)), undefined, 'not-in-repository'],
  ] as const)('%s', (_, state, seedText, expected) => {
    expect(seedState(state, seedText, seedText === undefined ? undefined : seedDigest(seedText))).toBe(expected);
  });

  it('the digest is of the text’s bytes: one changed character is another seed', () => {
    expect(seedDigest(A)).toMatch(/^[0-9a-f]{64}$/);
    expect(seedDigest(A)).not.toBe(seedDigest(A.replace('35', '36')));
    expect(seedDigest(A)).not.toBe(seedDigest(A.replace('\n', '\r\n')));
  });
});

describe('servedWords', () => {
  it('says which version shoppers see while nobody has chosen', () => {
    expect(servedWords(SAVED, SAVED, B)).toBe(
      'Shoppers see the saved version, and will until an editor chooses: publishing keeps it too.',
    );
    expect(servedWords(B, SAVED, B)).toMatch(/^Shoppers see the repository’s version: the saved one is not published\./);
    expect(servedWords(A, SAVED, B)).toMatch(/^Shoppers see an earlier published version\./);
  });
});
