// video.js adds <style> elements for its default sizes unless this is set before it loads; the
// page's CSP (style-src 'self') would refuse them.
declare global {
  interface Window {
    VIDEOJS_NO_DYNAMIC_STYLE?: boolean;
  }
}
window.VIDEOJS_NO_DYNAMIC_STYLE = true;

export {};
