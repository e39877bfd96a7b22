import type { ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import { formatDate } from '../lib/content-head';
import './content.css';

export interface ContentSummary {
  slug: string;
  title: string;
  summary: string;
  image: string;
  path: string;
  readingTime: number;
  publishedAt: string;
  platform?: string;
}

/** Home › Section › Page, matching the BreadcrumbList structured data. */
export function Breadcrumbs({ section, page }: { section: 'blog' | 'tutorials'; page?: string }) {
  const label = section === 'blog' ? 'Blog' : 'Tutorials';
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        <li>
          <Link to="/">Home</Link>
        </li>
        <li>
          {page ? (
            <Link to={section === 'blog' ? '/blog' : '/tutorials'}>{label}</Link>
          ) : (
            <span aria-current="page">{label}</span>
          )}
        </li>
        {page && (
          <li>
            <span aria-current="page">{page}</span>
          </li>
        )}
      </ol>
    </nav>
  );
}

export function ContentCard({
  item,
  kind,
  headingLevel = 2,
}: {
  item: ContentSummary;
  kind: 'blog' | 'tutorials';
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const link =
    kind === 'blog'
      ? ({ to: '/blog/$slug', params: { slug: item.slug } } as const)
      : ({ to: '/tutorials/$slug', params: { slug: item.slug } } as const);
  return (
    <Link {...link} className="content-card" data-testid={`content-card-${item.slug}`}>
      <img src={item.image} alt="" width={1200} height={630} loading="lazy" />
      <div className="content-card-body">
        <Heading>{item.title}</Heading>
        <p className="muted">{item.summary}</p>
        <ul className="content-meta">
          {item.platform && <li>{item.platform}</li>}
          <li>{item.readingTime} min read</li>
          {kind === 'blog' && (
            <li>
              <time dateTime={item.publishedAt}>{formatDate(item.publishedAt)}</time>
            </li>
          )}
        </ul>
      </div>
    </Link>
  );
}

export const toSummary = <T extends ContentSummary>(e: T): ContentSummary => ({
  slug: e.slug,
  title: e.title,
  summary: e.summary,
  image: e.image,
  path: e.path,
  readingTime: e.readingTime,
  publishedAt: e.publishedAt,
  ...(e.platform ? { platform: e.platform } : {}),
});

/** The index page of a content section (the blog, the tutorials): heading, lead and the cards. */
export function ContentIndex({
  section,
  title,
  lead,
  listTestId,
  items,
}: {
  section: 'blog' | 'tutorials';
  title: string;
  lead: ReactNode;
  listTestId: string;
  items: ContentSummary[];
}) {
  return (
    <div className="container page">
      <Breadcrumbs section={section} />
      <p className="eyebrow">{section === 'blog' ? 'Blog' : 'Tutorials'}</p>
      <h1 data-testid="page-title">{title}</h1>
      <p className="lead">{lead}</p>
      <ul className="content-grid" data-testid={listTestId}>
        {items.map((item) => (
          <li key={item.slug}>
            <ContentCard item={item} kind={section} />
          </li>
        ))}
      </ul>
    </div>
  );
}
