// How many of a product's saves the shop keeps (decision 021): shared by the pruning, the history (which lists as many
// as are always kept) and the editor's words for it.

/** Per product, the newest saves always kept: as many as the history lists. */
export const REVISIONS_KEPT = 50;

/** Per product, every save of this many days is kept, however many there are; and uploads this recent. */
export const REVISION_DAYS_KEPT = 90;

/** What the history says under its oldest entry once earlier saves of the product were pruned. */
export const OLDER_PRUNED_WORDS = `Older saves are no longer kept: the shop keeps a product's last ${REVISIONS_KEPT} saves and every save of the last ${REVISION_DAYS_KEPT} days (and any a publish still needs).`;
