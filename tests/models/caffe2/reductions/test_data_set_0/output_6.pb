B
Y_all_meanJ.?0>