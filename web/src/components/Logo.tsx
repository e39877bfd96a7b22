export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" focusable="false">
      <rect width="64" height="64" rx="14" fill="var(--logo-bg)" />
      <circle cx="32" cy="34" r="6" fill="var(--accent)" />
      <path
        d="M20 46a17 17 0 0 1 0-24M44 22a17 17 0 0 1 0 24M13 53a27 27 0 0 1 0-38M51 15a27 27 0 0 1 0 38"
        fill="none"
        stroke="var(--accent)"
        strokeWidth="4"
        strokeLinecap="round"
      />
    </svg>
  );
}
