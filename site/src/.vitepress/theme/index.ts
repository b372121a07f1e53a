// The default theme with the site's own styles (custom.css) and a 404 page that lists the guide (NotFound.vue).
import DefaultTheme from "vitepress/theme"
import { h } from "vue"
import NotFound from "./NotFound.vue"
import "./custom.css"

export default {
  ...DefaultTheme,
  Layout: () => h(DefaultTheme.Layout, null, { "not-found": () => h(NotFound) })
}
