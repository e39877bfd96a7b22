import './hero-visual.css';

const BARS = [38, 62, 80, 54, 92, 70, 46, 84, 66, 40, 74, 58, 88, 50, 36, 60];

/**
 * The product at a glance beside the home page's headline: the studio's on-air console and the
 * player a listener sees, drawn in HTML and CSS (no image to wait for; decorative, so hidden from
 * assistive technology — the text beside it says the same).
 */
export function HeroVisual() {
  return (
    <div className="hero-visual" aria-hidden="true" data-testid="hero-visual">
      <div className="hv-console">
        <div className="hv-row">
          <span className="hv-onair">
            <span className="hv-dot" /> On air
          </span>
          <span className="hv-figures">
            <span className="hv-mono">01:12:08</span> · 128 listeners
          </span>
        </div>
        <div className="hv-meter">
          <span />
        </div>
        <div className="hv-np">
          <span className="hv-label">Now playing</span> Blue in Green — Miles Davis
        </div>
      </div>
      <div className="hv-player">
        <div className="hv-art">
          <span>N</span>
        </div>
        <div className="hv-info">
          <span className="hv-live">
            <span className="hv-dot" /> Live
          </span>
          <strong className="hv-name">Night Owl Radio</strong>
          <span className="hv-by">by Nina Night (@ninanight)</span>
          <div className="hv-bars">
            {BARS.map((h, i) => (
              <span key={i} style={{ height: `${h}%` }} />
            ))}
          </div>
          <div className="hv-controls">
            <span className="hv-play" />
            <span className="hv-volume" />
          </div>
        </div>
      </div>
    </div>
  );
}
