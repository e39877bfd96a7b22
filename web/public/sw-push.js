// Web Push handlers (the follow branch writes them here); imported by /sw.js.
