import { createFileRoute } from '@tanstack/react-router';
import { Breadcrumbs, ContentCard, toSummary } from '../../../components/ContentParts';
import { contentHead } from '../../../lib/content-head';

export const Route = createFileRoute('/_site/tutorials/')({
  loader: async () => {
    const content = await import('../../../lib/content');
    return { seo: content.indexSeo.tutorials, items: content.tutorials.map(toSummary) };
  },
  head: ({ loaderData }) => (loaderData ? contentHead(loaderData.seo) : {}),
  component: TutorialsIndex,
});

function TutorialsIndex() {
  const { items } = Route.useLoaderData();
  return (
    <div className="container page">
      <Breadcrumbs section="tutorials" />
      <p className="eyebrow">Tutorials</p>
      <h1 data-testid="page-title">Embed your station anywhere</h1>
      <p className="lead">
        Step-by-step guides for the platforms our listeners' websites run on. Every guide uses the
        same two lines of HTML, and every one is free.
      </p>
      <ul className="content-grid" data-testid="tutorial-list">
        {items.map((t) => (
          <li key={t.slug}>
            <ContentCard item={t} kind="tutorials" />
          </li>
        ))}
      </ul>
    </div>
  );
}
