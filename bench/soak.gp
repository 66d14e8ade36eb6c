# The soak's plot (bench/soak.mjs): the server's RSS and open files against time, the warm-up
# shaded. gnuplot -e "datafile='docs/soak.dat'; outfile='docs/soak.svg'; warmup=600" bench/soak.gp
set terminal svg size 900,560 dynamic font 'sans,12'
set output outfile
set multiplot layout 2,1 title "Soak: server RSS and open files (bench/soak.mjs)"
set grid
set key bottom right
set xlabel "minutes"
set xrange [0:*]
set object 1 rect from 0, graph 0 to (warmup/60.0), graph 1 behind fc rgb "#eeeeee" fs solid noborder
set ylabel "RSS, MiB"
set yrange [0:*]
set y2label "games finished"
set y2tics
set ytics nomirror
plot datafile using ($1/60):2 with lines lw 2 lc rgb "#1f77b4" title "RSS (VmRSS)", \
     datafile using ($1/60):5 axes x1y2 with lines dt 2 lc rgb "#888888" title "games finished"
set ylabel "open files"
set y2label "rooms in memory"
set y2range [0:*]
plot datafile using ($1/60):3 with lines lw 2 lc rgb "#d62728" title "open files (/proc/PID/fd)", \
     datafile using ($1/60):7 axes x1y2 with lines dt 2 lc rgb "#2ca02c" title "rooms in memory (/metrics)"
unset multiplot
