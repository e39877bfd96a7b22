import { Outlet, createFileRoute } from '@tanstack/react-router';
import { SiteShell } from '../components/SiteShell';

/** The shared layout: header, footer and toasts around every page but the embed player. */
export const Route = createFileRoute('/_site')({
  component: () => (
    <SiteShell>
      <Outlet />
    </SiteShell>
  ),
});
