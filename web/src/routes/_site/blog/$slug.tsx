import { Link, createFileRoute } from '@tanstack/react-router';
import { ContentBody } from '../../../components/ContentBody';
import { Breadcrumbs } from '../../../components/ContentParts';
import { NotFound } from '../../../components/NotFound';
import { articleHead, formatDate } from '../../../lib/content-head';

export const POST_NOT_FOUND = 'Post not found';

export const Route = createFileRoute('/_site/blog/$slug')({
  loader: async ({ params }) => {
    const content = await import('../../../lib/content');
    return { post: content.getPost(params.slug) };
  },
  head: ({ loaderData }) => articleHead(loaderData?.post?.seo, POST_NOT_FOUND),
  component: PostPage,
});

function PostPage() {
  const { post } = Route.useLoaderData();
  if (!post) return <NotFound title={POST_NOT_FOUND} message={POST_NOT_FOUND} />;
  const { author } = post;
  return (
    <div className="container page">
      <article className="article" data-testid="post">
        <Breadcrumbs section="blog" page={post.title} />
        <p className="eyebrow">Blog</p>
        <h1 data-testid="page-title">{post.title}</h1>
        <p className="lead">{post.summary}</p>
        <ul className="content-meta">
          <li>
            <time dateTime={post.publishedAt}>{formatDate(post.publishedAt)}</time>
          </li>
          <li>{post.readingTime} min read</li>
          <li>By {author.displayName}</li>
        </ul>
        <img className="article-hero" src={post.image} alt="" width={1200} height={630} />
        <ContentBody html={post.body} />
        <footer className="author" data-testid="post-author">
          {author.avatar && <img src={author.avatar} alt="" width={48} height={48} />}
          <div>
            <p>
              <strong>{author.displayName}</strong>
            </p>
            {author.bio && <p className="muted">{author.bio}</p>}
          </div>
        </footer>
        <p>
          <Link to="/blog">← All posts</Link>
        </p>
      </article>
    </div>
  );
}
