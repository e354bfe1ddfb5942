// What the reviews island loads on first use, as one chunk: the live list (when there are shopper reviews) and the
// form (for a signed-in shopper). A guest on a product without shopper reviews never downloads either.
export { default as ReviewForm } from './ReviewForm';
export { ReviewList } from './ReviewList';
