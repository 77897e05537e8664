/**
 * The contract of one search method as a config names it: {@link
 * dev.keel.search.spec.SearchMethodSpec} declares the name, checks the method's own settings and
 * builds its {@link dev.keel.search.core.SearchMethod}. Each spec lives next to its plan (asha,
 * hyperband, pbt, tpe, method); {@link dev.keel.search.SearchMethods} lists them, so a new searcher
 * is one spec class and one line there.
 */
package dev.keel.search.spec;
