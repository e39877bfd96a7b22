/**
 * A value made at its first use and kept (a failed attempt is tried again at the next use). For
 * modules that are heavy to load and needed on some paths only (sharp, the S3 client, nodemailer,
 * web-push, zxcvbn's dictionaries): the API starts without them, and so does every test that
 * boots it (in a Jest worker, the four took 0.4 s of CPU for each test file that boots the app).
 */
export function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    if (!value) {
      const made = make();
      value = made;
      made.catch(() => {
        if (value === made) value = undefined;
      });
    }
    return value;
  };
}
