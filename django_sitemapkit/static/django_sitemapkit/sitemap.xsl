<?xml version="1.0" encoding="UTF-8"?>
<!--
  django-sitemapkit: how a browser shows a sitemap file to a person (a table).
  Crawlers do not read it. No script, no external resource: served from the
  site's own origin, as browsers require of an XSL stylesheet.
-->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    exclude-result-prefixes="s xhtml image">
  <xsl:output method="html" encoding="UTF-8" indent="no" doctype-system="about:legacy-compat"/>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <meta name="robots" content="noindex"/>
        <title>
          <xsl:choose>
            <xsl:when test="s:sitemapindex">Sitemap index</xsl:when>
            <xsl:otherwise>Sitemap</xsl:otherwise>
          </xsl:choose>
        </title>
        <style>
          body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
                 color: #1f2328; background: #fff; margin: 2em auto; max-width: 75em; padding: 0 1em; }
          h1 { font-size: 1.6em; margin: 0 0 .2em; }
          p.summary { color: #59636e; margin: 0 0 1.2em; }
          table { border-collapse: collapse; width: 100%; }
          th, td { text-align: left; padding: .35em .7em; border-bottom: 1px solid #d1d9e0;
                   vertical-align: top; }
          th { background: #f6f8fa; font-weight: 600; position: sticky; top: 0; }
          tr:nth-child(even) td { background: #fafbfc; }
          td.n { text-align: right; color: #59636e; font-variant-numeric: tabular-nums; }
          td.loc { word-break: break-all; }
          td.date { white-space: nowrap; font-variant-numeric: tabular-nums; }
          a { color: #0969da; text-decoration: none; }
          a:hover { text-decoration: underline; }
          .alt a, .alt span.text { margin-right: .5em; }
          .none { color: #8c959f; }
        </style>
      </head>
      <body>
        <xsl:apply-templates select="s:sitemapindex | s:urlset"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="s:sitemapindex">
    <h1>Sitemap index</h1>
    <p class="summary">
      This index names <strong><xsl:value-of select="count(s:sitemap)"/></strong> sitemap
      file(s); search engines read it as XML, this table is for people.
    </p>
    <table>
      <thead>
        <tr><th>#</th><th>Sitemap</th><th>Last modified</th></tr>
      </thead>
      <tbody>
        <xsl:for-each select="s:sitemap">
          <tr>
            <td class="n"><xsl:value-of select="position()"/></td>
            <td class="loc">
              <xsl:call-template name="link"><xsl:with-param name="href" select="s:loc"/></xsl:call-template>
            </td>
            <td class="date"><xsl:call-template name="lastmod"/></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>

  <xsl:template match="s:urlset">
    <xsl:variable name="frequencies" select="boolean(s:url/s:changefreq)"/>
    <xsl:variable name="priorities" select="boolean(s:url/s:priority)"/>
    <h1>Sitemap</h1>
    <p class="summary">
      This file lists <strong><xsl:value-of select="count(s:url)"/></strong> URL(s);
      search engines read it as XML, this table is for people.
      <a href="sitemap.xml">The sitemap index</a>
    </p>
    <table>
      <thead>
        <tr>
          <th>#</th>
          <th>URL</th>
          <th>Last modified</th>
          <xsl:if test="$frequencies"><th>Change frequency</th></xsl:if>
          <xsl:if test="$priorities"><th>Priority</th></xsl:if>
          <th>Alternates</th>
          <th>Images</th>
        </tr>
      </thead>
      <tbody>
        <xsl:for-each select="s:url">
          <tr>
            <td class="n"><xsl:value-of select="position()"/></td>
            <td class="loc">
              <xsl:call-template name="link"><xsl:with-param name="href" select="s:loc"/></xsl:call-template>
            </td>
            <td class="date"><xsl:call-template name="lastmod"/></td>
            <xsl:if test="$frequencies"><td><xsl:value-of select="s:changefreq"/></td></xsl:if>
            <xsl:if test="$priorities"><td class="n"><xsl:value-of select="s:priority"/></td></xsl:if>
            <td class="alt">
              <xsl:for-each select="xhtml:link[@rel='alternate']">
                <xsl:call-template name="link">
                  <xsl:with-param name="href" select="@href"/>
                  <xsl:with-param name="text" select="@hreflang"/>
                </xsl:call-template>
                <xsl:if test="position() != last()"><xsl:text> </xsl:text></xsl:if>
              </xsl:for-each>
              <xsl:if test="not(xhtml:link[@rel='alternate'])"><span class="none">-</span></xsl:if>
            </td>
            <td class="n"><xsl:value-of select="count(image:image)"/></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>

  <!--
    A link only to an http or https URL, the scheme written exactly so (any case): a href of
    another scheme (javascript:, data:, vbscript:...), or one a browser would read otherwise
    (leading spaces or control characters, a tab inside the scheme), is shown as text, never
    followed. The values are the file's, which a row's data may have written.
  -->
  <xsl:template name="link">
    <xsl:param name="href"/>
    <xsl:param name="text" select="$href"/>
    <xsl:variable name="start" select="translate(substring($href, 1, 8), 'HTPS', 'htps')"/>
    <xsl:choose>
      <xsl:when test="starts-with($start, 'http://') or $start = 'https://'">
        <a href="{$href}" title="{$href}"><xsl:value-of select="$text"/></a>
      </xsl:when>
      <xsl:otherwise><span class="text" title="{$href}"><xsl:value-of select="$text"/></span></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="lastmod">
    <xsl:choose>
      <xsl:when test="s:lastmod">
        <xsl:value-of select="translate(s:lastmod, 'T', ' ')"/>
      </xsl:when>
      <xsl:otherwise><span class="none">-</span></xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
