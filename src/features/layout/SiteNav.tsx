import { useEffect, useId, useRef, useState } from 'react';
import { api } from '@/lib/api';
import { displayName } from '../auth/auth';
import { $authModal } from '../auth/auth.store';
import { clearPrivateState } from '../auth/session.client';
import { useUser } from '../auth/use-user';
import { notify } from '../toasts/toast.store';
import { isCurrent, MOBILE_MENU_AUTOCLOSE_MS, NAV_LINKS } from './nav';

interface Props {
  pathname: string;
}

/** Main navigation: a row of links on wide screens, a menu button on phones whose panel closes itself after 3 s. */
export default function SiteNav({ pathname }: Props) {
  const user = useUser();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);

  async function signOut() {
    setOpen(false);
    // A missing session on the server is not an error (product spec): the browser forgets the shopper either way.
    await api('/api/auth/logout', {});
    clearPrivateState();
    if (pathname === '/orders' || pathname === '/wishlist') window.location.assign('/');
    else notify.info('You have been logged out.');
  }

  useEffect(() => {
    if (!open) return undefined;
    const timer = window.setTimeout(() => setOpen(false), MOBILE_MENU_AUTOCLOSE_MS);
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      window.clearTimeout(timer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  // Every link is in the page; My Orders and Wishlist show while <html data-signed-in> (src/styles/header.css). That mark is set
  // before the first paint when this browser's shopper was signed in (signed-in-hint.inline.mjs), so the links are
  // there from the start rather than pushing the header about once the server answers.
  const list = (
    <ul className="nav-list">
      {NAV_LINKS.map((link) => (
        <li key={link.href} className={link.adminOnly ? 'nav-admin' : link.signedInOnly ? 'nav-signed-in' : undefined}>
          <a href={link.href} aria-current={isCurrent(link, pathname) ? 'page' : undefined} onClick={() => setOpen(false)}>
            {link.label}
          </a>
        </li>
      ))}
    </ul>
  );

  const greeting = user ? `Online: ${displayName(user)}` : 'Guest';

  return (
    <nav className="site-nav" aria-label="Main">
      <div className="nav-desktop">{list}</div>
      {/* Any name fits: the greeting is cut short with an ellipsis (the whole of it stays in the tooltip and the text). */}
      <span
        key={user ? 'online' : 'guest'}
        className="online-indicator"
        data-testid="online-indicator"
        title={user ? greeting : undefined}
      >
        <span className={user ? 'dot dot-online' : 'dot'} aria-hidden="true" />
        <span className="greeting">
          {user ? (
            <>
              <span className="greeting-status">Online: </span>
              {displayName(user)}
            </>
          ) : (
            greeting
          )}
        </span>
      </span>
      {user ? (
        <button key="out" type="button" className="account-button account-button-out" onClick={signOut}>
          Log out
        </button>
      ) : (
        <button key="in" type="button" className="account-button" onClick={() => $authModal.set('login')}>
          Log in
        </button>
      )}
      <button
        ref={buttonRef}
        type="button"
        className="menu-button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
      >
        <svg aria-hidden="true" width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2">
          {open ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
        </svg>
        <span className="visually-hidden">Menu</span>
      </button>
      <div id={panelId} className="nav-mobile" hidden={!open}>
        {list}
        {/* On a narrow phone, Log out moves here from the header row, so the greeting keeps room for the name. */}
        {user && (
          <button type="button" className="account-button menu-log-out" onClick={signOut}>
            Log out
          </button>
        )}
      </div>
    </nav>
  );
}
