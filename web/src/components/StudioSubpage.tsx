import type { Station } from '@radiobroadcaster/contracts';
import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import './audience.css';

const TABS = [
  { to: '/studio/$stationId/stats', label: 'Stats' },
  { to: '/studio/$stationId/webhooks', label: 'Webhooks' },
] as const;

/** The frame of a station's owner pages: title, the way back to the studio, and the tabs. */
export function StudioSubpage({
  station,
  title,
  intro,
  children,
  testId,
}: {
  station: Station;
  title: string;
  intro: ReactNode;
  children: ReactNode;
  testId: string;
}) {
  return (
    <div className="container page" data-testid={testId}>
      <header className="page-header">
        <p className="eyebrow">
          <Link to="/studio" search={{ station: station.id }}>
            Studio
          </Link>{' '}
          · {station.name}
        </p>
        <h1>{title}</h1>
        <p className="muted">{intro}</p>
        <nav className="subnav" aria-label="Station tools">
          <Link
            to="/studio"
            search={{ station: station.id }}
            className="subnav-link"
            activeOptions={{ exact: true }}
          >
            Broadcast
          </Link>
          {TABS.map((t) => (
            <Link
              key={t.to}
              to={t.to}
              params={{ stationId: station.id }}
              className="subnav-link"
              activeProps={{ 'aria-current': 'page' }}
            >
              {t.label}
            </Link>
          ))}
        </nav>
      </header>
      {children}
    </div>
  );
}
