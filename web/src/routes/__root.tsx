import { HeadContent, Outlet, createRootRouteWithContext } from '@tanstack/react-router';
import { Toaster } from 'sonner';
import { RootErrorScreen } from '../components/ErrorScreen';
import { DefaultNotFound } from '../components/NotFound';
import { SiteShell } from '../components/SiteShell';
import { pageMeta } from '../lib/seo';
import type { RouterContext } from '../router';

export const Route = createRootRouteWithContext<RouterContext>()({
  head: () => ({ meta: pageMeta({}) }),
  component: RootComponent,
  errorComponent: RootErrorScreen,
  notFoundComponent: (props) => (
    <SiteShell>
      <DefaultNotFound {...props} />
    </SiteShell>
  ),
});

function RootComponent() {
  return (
    <>
      <HeadContent />
      <Outlet />
      {/* Width 356 px and swipe threshold 45 px are sonner's built-in values (spec §9). */}
      <Toaster
        position="bottom-right"
        theme="dark"
        duration={4000}
        visibleToasts={3}
        gap={14}
        hotkey={['altKey', 'KeyT']}
      />
    </>
  );
}
