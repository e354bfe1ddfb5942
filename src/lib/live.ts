import { useEffect, useState } from 'react';

/**
 * Whether the island's code is live: false in the server's HTML and while it hydrates, true from then on. A form an
 * island renders is in the page before its code has loaded (islands hydrate after the first paint, client:painted);
 * a button that must not act before then is rendered `disabled={!live}`.
 */
export function useLive(): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => setLive(true), []);
  return live;
}
