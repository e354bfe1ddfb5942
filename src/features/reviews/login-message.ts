// Its own module so the reviews island can take this one string without the list code (which it loads on first use).

/** Product spec: what a guest reads instead of the review form, and what the API answers a guest. */
export const LOGIN_TO_REVIEW = 'Login to leave a review';
