B
Y_backsum2JV±@ƒŸ=