/** A page's public path, whatever form the build gives it: "/about.html", "/about/" and "/about" are all "/about". */
export function pagePath(pathname: string): string {
  const clean = pathname.replace(/\.html$/, '').replace(/\/index$/, '/');
  return clean.length > 1 ? clean.replace(/\/+$/, '') : '/';
}
