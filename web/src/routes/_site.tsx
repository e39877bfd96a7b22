import { Outlet, createFileRoute } from '@tanstack/react-router';
import { SiteShell } from '../components/SiteShell';

/** The shared layout (spec §2 "routes inside the shared layout"). */
export const Route = createFileRoute('/_site')({
  component: () => (
    <SiteShell>
      <Outlet />
    </SiteShell>
  ),
});
