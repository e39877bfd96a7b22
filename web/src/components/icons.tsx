import type { ReactNode } from 'react';

/** Decorative: the text or the label beside an icon says what it means. Drawn in the text colour. */
function Icon({ size, children }: { size: number; children: ReactNode }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

/** Drawn as lines rather than filled. */
const LINE = { stroke: 'currentColor', strokeWidth: 2, fill: 'none' } as const;

export function WarningIcon() {
  return (
    <Icon size={16}>
      <path
        d="M12 3 2 21h20L12 3zm0 5.5 6.2 11H5.8L12 8.5zM11 11v4h2v-4h-2zm0 5v2h2v-2h-2z"
        fill="currentColor"
      />
    </Icon>
  );
}

export function PlayIcon() {
  return (
    <Icon size={22}>
      <path
        d="M8 5.5v13a1 1 0 0 0 1.5.86l10.5-6.5a1 1 0 0 0 0-1.72L9.5 4.64A1 1 0 0 0 8 5.5z"
        fill="currentColor"
      />
    </Icon>
  );
}

export function StopIcon() {
  return (
    <Icon size={22}>
      <rect x="6" y="6" width="12" height="12" rx="2" fill="currentColor" />
    </Icon>
  );
}

export function VolumeIcon({ muted }: { muted: boolean }) {
  return (
    <Icon size={20}>
      <path d="M4 9v6h4l5 4V5L8 9H4z" fill="currentColor" />
      <path
        d={muted ? 'M16 9l5 6M21 9l-5 6' : 'M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12'}
        {...LINE}
        strokeLinecap="round"
      />
    </Icon>
  );
}

export function HeadphonesIcon() {
  return (
    <Icon size={16}>
      <path
        d="M4 15v-3a8 8 0 0 1 16 0v3M4 15a2 2 0 0 1 2-2h1v7H6a2 2 0 0 1-2-2v-3zm16 0a2 2 0 0 0-2-2h-1v7h1a2 2 0 0 0 2-2v-3z"
        {...LINE}
        strokeLinejoin="round"
      />
    </Icon>
  );
}
