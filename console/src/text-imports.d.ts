/** Stylesheets imported as text (`with { type: 'text' }`): a lazily loaded screen's CSS, adopted when it is shown. */
declare module 'uplot/dist/uPlot.min.css' {
  const css: string;
  export default css;
}
