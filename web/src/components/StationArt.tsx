import type { Station } from '@radiobroadcaster/contracts';

/** Up to two initials of a name, for pictures that are not there. */
export function initialsOf(name: string): string {
  const letters = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => [...w][0]!.toUpperCase())
    .join('');
  return letters || '♪';
}

/** A hue from the name, so stations without cover art still look different from each other. */
function hueOf(name: string): number {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 360;
  return h;
}

/** The station's cover art, or its initials on a colour of its own. Decorative next to the name. */
export function StationArt({
  station,
  size = 'md',
}: {
  station: Pick<Station, 'name' | 'coverUrl'>;
  size?: 'sm' | 'md' | 'lg';
}) {
  const hue = hueOf(station.name);
  return (
    <div
      className={`station-art art-${size}`}
      style={
        station.coverUrl
          ? undefined
          : {
              background: `linear-gradient(135deg, hsl(${hue} 70% 45%), hsl(${(hue + 60) % 360} 60% 30%))`,
            }
      }
      aria-hidden="true"
    >
      {station.coverUrl ? (
        <img src={station.coverUrl} alt="" loading="lazy" data-testid="station-cover" />
      ) : (
        <span>{initialsOf(station.name)}</span>
      )}
    </div>
  );
}

/** The broadcaster's picture, or their initial. */
export function Avatar({
  user,
  size = 32,
}: {
  user: { name: string; username: string; avatarUrl: string | null };
  size?: number;
}) {
  return user.avatarUrl ? (
    <img
      className="avatar"
      src={user.avatarUrl}
      alt=""
      width={size}
      height={size}
      data-testid="avatar"
    />
  ) : (
    <span className="avatar avatar-empty" style={{ width: size, height: size }} aria-hidden="true">
      {initialsOf(user.name || user.username).slice(0, 1)}
    </span>
  );
}
