// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import type { ReactNode } from 'react';
import { $authModal } from './auth.store';
import { useUser } from './use-user';

interface Props {
  title: string;
  text: string;
  /** Shown to a signed-in shopper. */
  children?: ReactNode;
}

/**
 * A page part only for signed-in shoppers: guests see a prompt to sign in or create an account. The page is the same
 * for everyone, so it comes with the prompt; where this browser's shopper was signed in (<html data-signed-in>, set
 * before the first paint), the prompt stays hidden and a line says their part is on its way, until the session
 * answers (pages.css).
 */
export default function PrivateCollection({ title, text, children }: Props) {
  const user = useUser();
  if (user) return <>{children}</>;
  return (
    <>
      <div className="private-prompt private-collection-prompt">
        <h2>{title}</h2>
        <p>{text}</p>
        <div className="private-actions">
          <button type="button" className="btn" onClick={() => $authModal.set('login')}>
            Enter Collection
          </button>
          <button type="button" className="btn btn-outline" onClick={() => $authModal.set('signup')}>
            Create Account
          </button>
        </div>
      </div>
      <p className="private-waiting" role="status">
        Loading…
      </p>
    </>
  );
}
