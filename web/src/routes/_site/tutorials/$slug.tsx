import { Link, createFileRoute } from '@tanstack/react-router';
import { ContentBody } from '../../../components/ContentBody';
import { Breadcrumbs, ContentCard, toSummary } from '../../../components/ContentParts';
import { NotFound } from '../../../components/NotFound';
import { articleHead, formatDate } from '../../../lib/content-head';

export const TUTORIAL_NOT_FOUND = 'Tutorial not found';

export const Route = createFileRoute('/_site/tutorials/$slug')({
  loader: async ({ params }) => {
    const content = await import('../../../lib/content');
    const tutorial = content.getTutorial(params.slug);
    const more = content.tutorials.filter((t) => t.slug !== params.slug).slice(0, 3);
    return { tutorial, more: more.map(toSummary) };
  },
  head: ({ loaderData }) => articleHead(loaderData?.tutorial?.seo, TUTORIAL_NOT_FOUND),
  component: TutorialPage,
});

function TutorialPage() {
  const { tutorial, more } = Route.useLoaderData();
  if (!tutorial) return <NotFound title={TUTORIAL_NOT_FOUND} message={TUTORIAL_NOT_FOUND} />;
  return (
    <div className="container page">
      <article className="article" data-testid="tutorial">
        <Breadcrumbs section="tutorials" page={tutorial.title} />
        <p className="eyebrow">
          {tutorial.platform} · {tutorial.difficulty}
        </p>
        <h1 data-testid="page-title">{tutorial.title}</h1>
        <p className="lead">{tutorial.summary}</p>
        <ul className="content-meta">
          <li>{tutorial.readingTime} min read</li>
          <li>
            Updated{' '}
            <time dateTime={tutorial.lastModified}>{formatDate(tutorial.lastModified)}</time>
          </li>
        </ul>
        <img className="article-hero" src={tutorial.image} alt="" width={1200} height={630} />
        {tutorial.headings.length > 2 && (
          <nav className="toc" aria-label="On this page">
            <h2>On this page</h2>
            <ol>
              {tutorial.headings.map((h) => (
                <li key={h.id}>
                  <a href={`#${h.id}`}>{h.text}</a>
                </li>
              ))}
            </ol>
          </nav>
        )}
        <ContentBody html={tutorial.body} />
        <p className="muted">
          Questions? See the <Link to="/embed">embed reference</Link> or{' '}
          <Link to="/about">contact us</Link>.
        </p>
      </article>
      <section className="section" aria-labelledby="more-tutorials">
        <h2 id="more-tutorials">More tutorials</h2>
        <ul className="content-grid">
          {more.map((t) => (
            <li key={t.slug}>
              <ContentCard item={t} kind="tutorials" headingLevel={3} />
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
