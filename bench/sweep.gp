# Plots the sweep of bench/bench.mjs (docs/performance-sweep.dat) as SVG: accepted moves per
# second (top) and the move round trip's 99th percentile (bottom) against the number of players,
# ours beside the Node.js peer. Run: gnuplot -e "datafile='IN'; outfile='OUT'" bench/sweep.gp
if (!exists("datafile")) datafile = 'docs/performance-sweep.dat'
if (!exists("outfile")) outfile = 'docs/performance-sweep.svg'
set terminal svg size 800,760 dynamic font "sans,13" background rgb "white"
set output outfile
set multiplot layout 2,1 title "Local Kalah 6x4 rooms, players thinking between moves (bench/bench.mjs sweep)"
set logscale x
set xrange [70:14000]
set xtics ("100" 100, "500" 500, "1,000" 1000, "2,000" 2000, "5,000" 5000, "10,000" 10000)
set grid
set key top left
set ylabel "accepted moves/s"
set format y "%.0f"
plot datafile using 1:2 with lines dashtype 2 lc rgb "#888888" title "offered", \
     datafile using 1:3 with linespoints pt 7 lc rgb "#1f77b4" lw 2 title "mancala-server", \
     datafile using 1:6 with linespoints pt 5 lc rgb "#d62728" lw 2 title "Node.js peer"
set logscale y
set ylabel "round trip p99, ms"
set arrow 1 from graph 0, first 10 to graph 1, first 10 nohead dashtype 3 lc rgb "#2ca02c" lw 2
set label 1 "target at 10,000 players: p99 10 ms" at graph 0.98, first 7 right tc rgb "#2ca02c"
set xlabel "players (one connection and one room each)"
set format y "%g"
plot datafile using 1:5 with linespoints pt 7 lc rgb "#1f77b4" lw 2 title "mancala-server", \
     datafile using 1:8 with linespoints pt 5 lc rgb "#d62728" lw 2 title "Node.js peer"
unset multiplot
