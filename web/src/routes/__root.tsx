import { HeadContent, Outlet, createRootRouteWithContext } from '@tanstack/react-router';
import { Toaster } from 'sonner';
import { BroadcastProvider } from '../components/broadcast/BroadcastProvider';
import { RootErrorScreen } from '../components/ErrorScreen';
import { DefaultNotFound } from '../components/NotFound';
import { SiteShell } from '../components/SiteShell';
import { pageMeta, withSuffix } from '../lib/seo';
import type { RouterContext } from '../router';

export const Route = createRootRouteWithContext<RouterContext>()({
  // No route matched (the router marks the match that shows its not-found screen): name the page.
  head: ({ matches }) => ({
    meta: pageMeta(matches.some((m) => m._notFound) ? { title: withSuffix('Not Found') } : {}),
  }),
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
      <BroadcastProvider>
        <Outlet />
      </BroadcastProvider>
      {/* Width 356 px and swipe threshold 45 px are sonner's built-in values, so none is set here. */}
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
