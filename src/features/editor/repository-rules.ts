// Whether the repository changed a product editors have saved (decision 018). Each save records the seed it descends
// from (a digest of content/products/<file> when the first save over it was made); a deploy that brings another seed
// text for the file, one that is not the saved text itself, changed it under the saves. Pure, for the server and tests.

/** What the repository's file is to the saved product. */
export type SeedState =
  /** No save: the seed is the product. */
  | 'seed'
  /** The saves were made over this seed, or the repository holds the saved text (an export committed). */
  | 'agrees'
  /** The repository has no such file (a product editors created, or one a deploy took away): nothing to choose. */
  | 'not-in-repository'
  /** Saved before the seed was recorded: the saves are taken as made over this seed. */
  | 'adopt'
  /** Changed in the repository since the saves were made: an editor chooses. */
  | 'changed';

export interface SavedState {
  text: string;
  /** 0: the seed itself (no save). */
  revision: number;
  /** The seed the newest save descends from: its digest, 'none' (no seed then) or null (not recorded). */
  seed: string | null;
}

/** The state of a saved product against the repository's text (`seedText`, digest `seedDigest`) of its file. */
export function seedState(saved: SavedState, seedText: string | undefined, seedDigest: string | undefined): SeedState {
  if (saved.revision === 0) return 'seed';
  if (seedText === undefined || seedDigest === undefined) return 'not-in-repository';
  if (saved.seed === null) return 'adopt';
  if (saved.seed === seedDigest || saved.text === seedText) return 'agrees';
  return 'changed';
}

/** What shoppers are served of a product changed in the repository, in words for the editor. */
export function servedWords(live: string | undefined, saved: string, repository: string): string {
  if (live === saved) return 'Shoppers see the saved version, and will until an editor chooses: publishing keeps it too.';
  if (live === repository)
    return 'Shoppers see the repository’s version: the saved one is not published. Publishing before you choose publishes the saved version.';
  return 'Shoppers see an earlier published version. Publishing before you choose publishes the saved version.';
}
