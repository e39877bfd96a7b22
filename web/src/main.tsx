import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { OfflineNotice } from './components/OfflineNotice';
import { AuthRequiredError } from './lib/auth';
import { createQueryClient } from './lib/query-client';
import { createAppRouter } from './router';
import './styles.css';

// The HTML carries default (or server-injected) title and social tags for crawlers; once the app
// runs, the routes' head() tags replace them so there is one of each.
document.head
  .querySelectorAll(
    'title, meta[name="description"], meta[property^="og:"], meta[name^="twitter:"], script[type="application/ld+json"]',
  )
  .forEach((el) => el.remove());

const queryClient = createQueryClient();
const router = createAppRouter(queryClient);

createRoot(document.getElementById('root')!, {
  // 'Authentication required' is an expected page state, not a bug worth a console error.
  onCaughtError: (error, info) => {
    if (error instanceof AuthRequiredError) return;
    console.error(error, info.componentStack);
  },
}).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {/* Outside the router: said even while a page waits for the network. */}
      <OfflineNotice />
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);

// The installable app's service worker: the offline shell, and Web Push (web/public/sw.js).
if ('serviceWorker' in navigator && window.isSecureContext) {
  addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => undefined);
  });
}
