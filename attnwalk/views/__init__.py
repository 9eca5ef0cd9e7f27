"""View models: a Trace turned into the preformatted strings a template prints.

Views only select and format values the engine recorded; they compute nothing new except
sanity sums and summaries that the text states as checks (row sums, extremes).
"""
