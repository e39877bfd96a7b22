import { PRODUCT_NAME } from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link, useRouter, useRouterState } from '@tanstack/react-router';
import { useEffect, useRef, type ReactNode } from 'react';
import { useSignOut } from '../lib/auth';
import { sessionQueryOptions } from '../queries/session.queries';
import { OnAirBar } from './broadcast/OnAirBar';
import { Logo } from './Logo';
import { MutationButton } from './MutationButton';

/** Header, main landmark and footer shared by every page inside the layout. */
export function SiteShell({ children }: { children: ReactNode }) {
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <SiteHeader />
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
      <SiteFooter />
    </div>
  );
}

function SiteHeader() {
  const session = useQuery(sessionQueryOptions());
  const user = session.data?.user;
  return (
    <header className="site-header">
      <div className="container header-row">
        <Link to="/" className="brand" aria-label={`${PRODUCT_NAME} home`}>
          <Logo />
          <span className="brand-name">{PRODUCT_NAME}</span>
        </Link>
        <nav aria-label="Main" className="nav">
          <Link to="/embed" className="nav-link" activeProps={{ 'aria-current': 'page' }}>
            Embed
          </Link>
          <Link to="/tutorial" className="nav-link" activeProps={{ 'aria-current': 'page' }}>
            Tutorial
          </Link>
          <Link to="/about" className="nav-link hide-sm" activeProps={{ 'aria-current': 'page' }}>
            About
          </Link>
          {user ? (
            <>
              <Link to="/studio" className="nav-link" activeProps={{ 'aria-current': 'page' }}>
                Studio
              </Link>
              <AccountMenu username={user.username} />
            </>
          ) : (
            <>
              <Link
                to="/signin"
                search={{ mode: 'signin' }}
                className="nav-link"
                activeOptions={{ includeSearch: true }}
                activeProps={{ 'aria-current': 'page' }}
                data-testid="nav-signin"
              >
                Sign in
              </Link>
              <Link
                to="/signin"
                search={{ mode: 'signup' }}
                className="btn btn-primary btn-sm"
                data-testid="nav-signup"
              >
                Sign up
              </Link>
            </>
          )}
        </nav>
      </div>
      <OnAirBar />
    </header>
  );
}

function AccountMenu({ username }: { username: string }) {
  const router = useRouter();
  const signOut = useSignOut(async () => {
    await router.navigate({ to: '/' });
    await router.invalidate();
  });
  const menu = useRef<HTMLDetailsElement>(null);
  const path = useRouterState({ select: (s) => s.location.pathname });
  // The menu closes once an item is picked, on Escape (focus back on its button) and on a click elsewhere.
  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [path]);
  useEffect(() => {
    const close = (e: Event) => {
      const el = menu.current;
      if (!el?.open) return;
      if (e instanceof KeyboardEvent) {
        if (e.key !== 'Escape') return;
        el.open = false;
        el.querySelector('summary')?.focus();
      } else if (!el.contains(e.target as Node)) {
        el.open = false;
      }
    };
    document.addEventListener('keydown', close);
    document.addEventListener('click', close);
    return () => {
      document.removeEventListener('keydown', close);
      document.removeEventListener('click', close);
    };
  }, []);
  return (
    <details className="account" ref={menu}>
      <summary className="nav-link" data-testid="account-menu">
        @{username}
      </summary>
      <div className="account-panel">
        <Link to="/$username" params={{ username }} className="menu-item">
          Profile
        </Link>
        <Link to="/studio" className="menu-item">
          Studio
        </Link>
        <Link to="/settings/domains" className="menu-item">
          Allowed domains
        </Link>
        <Link to="/settings/account" className="menu-item" data-testid="menu-account">
          Account
        </Link>
        <MutationButton mutation={signOut} className="menu-item" data-testid="signout">
          Sign out
        </MutationButton>
      </div>
    </details>
  );
}

function SiteFooter() {
  return (
    <footer className="site-footer">
      <div className="container footer-row">
        <p className="muted">
          © {new Date().getFullYear()} {PRODUCT_NAME}
        </p>
        <nav aria-label="Footer" className="footer-nav">
          <Link to="/about">About</Link>
          <Link to="/ios">iOS</Link>
          <Link to="/embed">Embed</Link>
          <Link to="/tutorial">Tutorial</Link>
          <Link to="/tutorials">Tutorials</Link>
          <Link to="/blog">Blog</Link>
          <Link to="/privacy">Privacy</Link>
          {/* Served by the API as redirects: full page loads, not app routes. */}
          <a href="/discord">Discord</a>
          <a href="/press">Press</a>
        </nav>
      </div>
    </footer>
  );
}
